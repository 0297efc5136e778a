"""The agent: the loop, the transcript with its pairing invariant, the toolbox a call goes through,
the system prompt and the context meter. Imports providers, tools, platform and core; never ui or cli."""
