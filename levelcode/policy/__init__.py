"""The rules the settings carry, as plain data: the settings' shape and the keys a repository may
never set (settings.py), each key parsed once into a typed field (settings_keys.py, prices.py,
profiles.py), the organisation's policy (managed_policy.py) and the host rules, one match and
one table of default ports (network_hosts.py) — documents in, typed values and problems out.

Imports only core; never reads a file, starts a process or touches the OS (platform/ reads the
files and hands their documents here).
"""
