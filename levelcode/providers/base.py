"""The one interface every model provider implements, and the settings that pick one.

A provider turns (system prompt, transcript, tools) into one `AssistantTurn`, calling `on_text`
with each piece of text as it streams in. Cancelling the awaiting task aborts the request.
Failures are raised as `ProviderError` subclasses (levelcode/core/errors.py) with the API's own message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from levelcode.core.messages import AssistantTurn, Message, ToolShape

PURE = True

ProviderName = Literal["anthropic", "openai"]


@dataclass(frozen=True)
class ProviderSettings:
    provider: ProviderName
    model: str
    base_url: str | None = None
    api_key: str | None = None
    max_tokens: int = 8192
    max_retries: int = 2  # on 429, 5xx and connection errors, with the SDK's backoff
    # tokens the model can read (providers/context_windows.py): derived from the model (or the
    # user's `contextWindow`), so it takes no part in comparing two choices of provider
    context_window: int = field(default=200_000, compare=False)


class Provider(Protocol):
    @property
    def settings(self) -> ProviderSettings: ...

    async def complete(
        self,
        *,
        system: str,
        messages: Sequence[Message],
        tools: Sequence[ToolShape],
        on_text: Callable[[str], None],
    ) -> AssistantTurn: ...


@runtime_checkable
class ListsModels(Protocol):
    async def served_models(self) -> list[str] | None:
        """The models the endpoint lists (`GET …/models`), in its order; None when it has no
        such list. Raises ProviderError when it refuses or cannot be reached."""
        ...
