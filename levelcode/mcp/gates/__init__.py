"""The gates as pure rules: tool naming, the catalog and its caps, the call policy, launch
fingerprints and what a launch runs, the cards' content and the overview every view shows.

Pure: plain data in, plain data out — never a process, a socket, a file or a terminal.
"""
