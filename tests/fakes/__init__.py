"""Fakes that behave like the real services where it matters, so tests need no network.

`fake_anthropic` and `fake_openai`: real HTTP servers on 127.0.0.1 speaking each model API's wire
format, driven by a script, refusing what the real APIs refuse. See `scripted_server` for the
script format, both in Python and as JSON for a server run in its own process.
"""
