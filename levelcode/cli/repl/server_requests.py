"""Who answers what a server asks of the user, in the interactive session: elicitation through
the ui's form, sampling through an approval card and then the current provider.

One question at a time (servers may ask at once); the live activity line is off the screen while
one is shown. Sampling runs on the session's own provider and model, capped at the lower of the
server's token limit and the session's, and only after an explicit yes.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager

from rich.console import Console
from rich.text import Text

from levelcode.core.approvals import Approver, decide_or_deny
from levelcode.core.errors import ProviderError, RemoteError
from levelcode.core.messages import Message, TextBlock
from levelcode.mcp.calls.elicitation import FormRequest, Unusable, parse_elicitation
from levelcode.mcp.calls.sampling import parse_sampling, sampling_card, sampling_result
from levelcode.mcp.live.client_features import USER_REJECTED, UserAnswers
from levelcode.providers.base import Provider
from levelcode.providers.factory import close_provider, make_provider
from levelcode.ui.elicitation_form import ask_form, ask_url
from levelcode.ui.visible import visible


class TerminalAnswers:
    def __init__(
        self,
        console: Console,
        approver: Approver,
        provider: Callable[[], Provider],
        asking: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext,
    ) -> None:
        self.console = console
        self.approver = approver
        self.provider = provider
        self.asking = asking  # wraps each question: the live activity line is off the screen meanwhile
        self._one_at_a_time = asyncio.Lock()

    def answers(self) -> UserAnswers:
        return UserAnswers(elicit=self.elicit, sample=self.sample)

    async def elicit(self, server: str, params: Mapping[str, object]) -> Mapping[str, object]:
        request = parse_elicitation(params)
        if isinstance(request, Unusable):
            why = visible(request.reason)
            said = f"MCP server {visible(server)!r} asked for input LevelCode cannot show ({why}); declined."
            self.console.print(Text(said, style="yellow"))
            return {"action": "decline"}
        async with self._one_at_a_time:
            with self.asking():
                if isinstance(request, FormRequest):
                    action, content = await ask_form(self.console, server, request)
                    if action != "accept":
                        return {"action": action}
                    return {"action": action, "content": content}
                return {"action": await ask_url(self.console, server, request)}

    async def sample(self, server: str, params: Mapping[str, object]) -> Mapping[str, object]:
        request = parse_sampling(params)
        if request is None:
            raise RemoteError("malformed sampling request", server=server, code=-32602)
        provider = self.provider()
        settings = provider.settings
        limit = min(request.max_tokens, settings.max_tokens)
        card = sampling_card(server, request, f"{settings.provider}/{settings.model}", limit)
        async with self._one_at_a_time:
            with self.asking():
                choice = await decide_or_deny(self.approver, card)
        if choice == "deny":
            raise RemoteError("the user declined the sampling request", server=server, code=USER_REJECTED)
        messages = [
            Message("assistant" if role == "assistant" else "user", (TextBlock(text or "(empty)"),))
            for role, text in request.messages
        ]
        limited = make_provider(dataclasses.replace(settings, max_tokens=limit))
        try:
            turn = await limited.complete(
                system=request.system, messages=_alternating(messages), tools=(), on_text=lambda _text: None
            )
        except ProviderError as exc:
            raise RemoteError(f"the model failed: {exc}", server=server, code=-32603) from exc
        finally:
            await close_provider(limited)
        return sampling_result(turn.message.text, settings.model, turn.stop_reason)


def _alternating(messages: list[Message]) -> list[Message]:
    """Consecutive messages of one role joined (the APIs want turns to alternate), starting with the user."""
    joined: list[Message] = []
    for message in messages:
        if joined and joined[-1].role == message.role:
            joined[-1] = Message(message.role, (*joined[-1].content, *message.content))
        else:
            joined.append(message)
    if joined and joined[0].role != "user":
        joined.insert(0, Message("user", (TextBlock("(the conversation starts with the assistant)"),)))
    return joined
