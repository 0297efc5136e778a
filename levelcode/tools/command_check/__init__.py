"""The command check: reading a shell command line the way bash would and flagging what could do
damage, before run_command or a background job runs it (`classify.classify_command`).

Pure apart from stat-like path resolution: never runs or opens anything. A check is a deny-list;
the sandbox is what confines what it lets through.
"""
