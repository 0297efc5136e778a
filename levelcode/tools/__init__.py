"""The built-in tools (files, commands, background jobs, the plan) and their approval rules.
Imports core, platform and the sandbox; never agent, mcp, ui or cli."""
