"""The rules the settings carry, as plain data: the settings' shape and the keys a repository may
never set (settings.py), the organisation's policy (managed_policy.py) and the host rules
(network_hosts.py) — documents in, typed values and problems out.

Imports only core; never reads a file, starts a process or touches the OS (platform/ reads the
files and hands their documents here).
"""
