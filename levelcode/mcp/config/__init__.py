"""MCP server configuration: the two tiers as plain data with their provenance, reading the files,
editing the user's own, and importing other tools' configs.

Never spawns or connects; writes only the user's settings.json (never a repository's files).
"""
