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

Git works inside, and nothing a sandboxed process writes may make the user's own git run code
later (git_guard.py; the table is docs/git-in-the-sandbox.md):
- The git dirs of the repositories in the writable folders, and of the repository a writable
  folder is or lies in (a linked worktree's common dir, a package folder's repository, a
  submodule's git dir — where it names that folder back), are writable: objects, refs, the index,
  HEAD, logs. So add, commit, branch, switch, merge, rebase, cherry-pick, stash, tag, reset,
  worktree add and submodule update work.
- Inside each, what decides what git runs or which configuration it reads stays read-only where
  it exists (git_controls.py: config, config.worktree, hooks, commondir, gitdir, info/attributes,
  alternates, remotes/, branches/; the same in each linked worktree's and submodule's git dir),
  and each git dir and the folders above those islands are mount points, so none can be renamed
  away and replaced. `.git` files and what the user's git configuration names inside a writable
  folder (config and include files, `core.hooksPath`, programs of filter and diff drivers,
  fsmonitor, aliases, …; git_config.py) are read-only too.
- A mount cannot forbid creating a name (`hooks/` where there was none, `git init sub`, a `.git`
  file pointing elsewhere, a missing include target), nor stop git writing state a later
  `--continue` acts on. So after each confined process (and every few seconds while a background
  command or a sandboxed server runs, git_watch.py) the writable folders and git dirs are checked
  against what they held when it started: a new control path, a linked worktree or submodule git
  dir git did not make, a link in a git dir (git writes through one), a rebase todo with new
  `exec` lines or a strategy that is not git's own, a new repository. Both are walked one way
  (folder_listings.py: from descriptors, a listing kept while its folder is unchanged, a bound on
  what is listed afresh); a folder either walk cannot list counts as planted, and one it could not
  list before the command was read-only for it (scan_gaps.py). Those are moved out of the
  workspace into a private folder of LevelCode's state (quarantine.py), and the tool result and
  the user are told what went where and how to recover.
"""
