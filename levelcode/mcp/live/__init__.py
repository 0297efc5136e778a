"""What is running now: the hub (one handle per server), each server's connection and the
transport it gets, the early start, the runtime that takes a workspace's servers through the
launch gate into the hub, a running server's resources, prompts and log, and the summary every
view shows.

Starts, talks to and ends servers. Never decides on its own whether a server may start (the
launch gate in launch/ does) or whether a call may run (calls/ does), and never words anything
for the user: notices and results of commands are typed data the ui words.
"""
