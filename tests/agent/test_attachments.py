"""What the user attaches reaches the model as part of their turn, in a shape both APIs accept
(each fake refuses what its API would), after the prompt's own text; and it stays typed in the
transcript, so a later change can find it and put a fresher copy in its place."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from levelcode.agent.events import RecordingSink
from levelcode.agent.loop import Agent
from levelcode.agent.toolbox import Toolbox
from levelcode.core.approvals import HeadlessApprover
from levelcode.core.attachments import Attachment, command_attachment, file_attachment, resource_attachment
from levelcode.tools.base import ToolContext
from tests.fakes.scripted_server import RecordedRequest, Reply
from tests.providers.support import Api, Connect


def last_user_text(request: RecordedRequest) -> str:
    message = request.body["messages"][-1]
    assert message["role"] == "user"
    content = message["content"]
    return content if isinstance(content, str) else "\n\n".join(block["text"] for block in content)


async def test_attachments_go_with_the_prompt_in_both_api_shapes(
    api: Api, connect: Connect, tmp_path: Path
) -> None:
    attached = (
        file_attachment("src/app.py", "print('app')\n", size=13),
        resource_attachment("everything", "demo://doc/1", "the doc", size=7),
        command_attachment("ls", "app.py\n[exit code 0]"),
    )
    with api.fake([Reply(text="Seen."), Reply(text="Still seen.")]) as server:
        toolbox = Toolbox(ToolContext(tmp_path), HeadlessApprover(), [])
        agent = Agent(connect(server), toolbox, system="You are a test.", sink=RecordingSink())
        assert await agent.run_turn("what does @src/app.py do?", attached) == "Seen."
        assert await agent.run_turn("and now?") == "Still seen."
        first, second = server.requests
    sent = last_user_text(first)
    assert sent.startswith("what does @src/app.py do?\n\n<file path='src/app.py'>\nprint('app')\n")
    assert "<mcp-resource server='everything' uri='demo://doc/1'>\nthe doc\n</mcp-resource>" in sent
    assert "<command-output command='ls'>\napp.py\n[exit code 0]\n</command-output>" in sent
    assert sent.index("<file") < sent.index("<mcp-resource") < sent.index("<command-output")
    assert "<file path='src/app.py'>" in str(second.body["messages"])  # it stays in the conversation
    prompt_message = agent.transcript.messages[0]
    kept = [block for block in prompt_message.content if isinstance(block, Attachment)]
    assert [(a.kind, a.source) for a in kept] == [
        ("file", "src/app.py"),
        ("mcp_resource", "everything:demo://doc/1"),
        ("command_output", "ls"),
    ]


def test_an_attachment_can_be_found_and_replaced_by_what_it_is() -> None:
    from levelcode.agent.transcript import Transcript

    transcript = Transcript()
    transcript.add_prompt("read it", [resource_attachment("s", "doc://1", "old", size=3)])
    message = transcript.messages[0]
    fresh = resource_attachment("s", "doc://1", "new", size=3)

    def refreshed(block: Any) -> Any:
        same = isinstance(block, Attachment) and (block.kind, block.source) == (fresh.kind, fresh.source)
        return fresh if same else block

    transcript.messages[0] = dataclasses.replace(message, content=tuple(map(refreshed, message.content)))
    assert "new" in transcript.messages[0].text
    assert "old" not in transcript.messages[0].text
