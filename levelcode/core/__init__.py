"""The shared vocabulary every layer speaks — messages, approvals, tool outcomes, errors — and the
few edge utilities all of them use (paths, settings files, JSON stores, process groups).

The bottom layer: imports nothing of LevelCode above it (a test reads every import).
"""
