"""The OS sandbox for what LevelCode runs on the model's behalf, built with bubblewrap (`bwrap`).

Sits above platform, policy and core: imports nothing from agent, ui, cli, tools or mcp, so commands and
the MCP servers that run in the sandbox are confined by the same policy (`policy.py`) and the same
argv wrapper.

Why bubblewrap rather than Landlock: git's control entries must stay read-only inside a writable
workspace. Landlock rights are inherited by everything beneath a directory, so a writable
workspace makes all of it writable (and a rename can replace a protected file); only a mount
namespace can carve read-only islands out of a writable tree, and a mount point cannot be
renamed or replaced. `--unshare-net` also closes UDP and abstract unix sockets, which Landlock's
TCP rules leave open.

Nothing a sandboxed process writes may make the user's own git run code later (git_guard.py):
- Every git dir inside a writable folder is read-only as a whole — the workspace's `.git`, a
  nested repository's, a bare one, a worktree's git dir and common dir, submodules' under
  `.git/modules` — not a list of its dangerous files. What git reads there and acts on is large
  and grows (config, config.worktree, commondir, hooks, worktrees/*, modules/*, the index whose
  gitlinks make `git status` enter a nested repository, rebase-merge/git-rebase-todo whose `exec`
  lines `git rebase --continue` runs, …): a list of islands is a deny-list that loses to the next
  file, and a file that does not exist yet cannot be mounted over. The price: git commands that
  write (add, commit, checkout, stash, fetch) fail in the sandbox — status, diff, log work — and
  the failure says so (diagnosis.py), so a person can run them outside.
- `.git` files, `.gitmodules`, and what the user's git configuration names inside a writable
  folder (config and include files, `core.hooksPath`, programs of filter and diff drivers,
  fsmonitor, aliases, …; git_config.py) are read-only too.
- A mount cannot forbid creating a name (`git init sub`, a `.git` file pointing elsewhere, a
  missing include target) nor stop a folder above an island from being renamed and recreated.
  So after each confined process (and every few seconds while a background command or a
  sandboxed server runs, git_watch.py) the writable folders are scanned for control entries that
  are new or swapped since it started, and a folder the scan cannot list counts as planted
  (scan_gaps.py); those are moved out of the workspace
  into a private folder of LevelCode's state (quarantine.py), and the tool result and the user
  are told what went where.
"""
