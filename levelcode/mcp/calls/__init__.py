"""One tool call's way: the router (classify → approve → call), the call policy of gates G2/G3
and where "always allow" answers are kept, the call card and how arguments are masked, the
catalog with its names (D4) and caps (G4), deferral and `tool_search`, the resource tools, and
the rules for what a server asks of the user while a call runs (elicitation, sampling).

Pure, except router.py (asks the approver, calls through the servers it is given) and
allow_store.py (writes the answers kept): the rest takes plain data and returns plain data —
never a process, a socket, a file or a terminal. Never starts, stops or reaches a server on its
own, and never decides whether one may start (launch/ does).
"""
