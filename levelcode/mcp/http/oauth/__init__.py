"""OAuth for remote MCP servers, as the 2025-11-25 and 2026-07-28 authorization specs describe,
written on httpx2: discovery (protected-resource and authorization-server metadata, with the older
fallbacks), client registration (pre-registered, client ID metadata document, dynamic), PKCE S256,
resource indicators, scope selection and step-up, refresh, issuer checks (RFC 9207).

Imported only when a remote server is connected (mcp/live/transports.py). Never logs, prints or puts in
an error a token, a code, a verifier or a client secret.
"""
