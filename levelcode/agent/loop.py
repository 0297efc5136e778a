"""The agent loop: prompt → model → tools → model … until the model answers without tools.

Streams text to the sink as it arrives and runs tool calls one after another. Before a request
would not fit the model's window, and once more if the API answers that it did not, the older
turns are compacted (agent/compaction.py). The pairing invariant holds on every exit path: a
provider failure or an abort while the model is streaming leaves no unanswered tool use (nothing
half-received is kept); an abort or a failure while tools run answers every call of that message
— run ones with their results, the rest as not run — before the abort propagates. A turn that
ends so is closed with a note (agent/transcript.py), so the next prompt is never read as more of
the unfinished one. `checkpoint` is called wherever the transcript is whole again — after each
batch of tool results, at the end of every turn however it ends, after a compaction — so the
session file (agent/session_store.py) never holds a tool use without its result.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence

from levelcode.agent.compaction import Compactor, Keep
from levelcode.agent.events import (
    AwaitingModel,
    EventSink,
    Notice,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
    TurnFinished,
)
from levelcode.agent.resource_notes import refreshed_copies, resource_changes_notice, with_resource_changes
from levelcode.agent.spend import SpendMeter, SpendReport
from levelcode.agent.toolbox import Toolbox
from levelcode.agent.transcript import FAILED_NOTE, INTERRUPTED_NOTE, Transcript
from levelcode.core.attachments import Attachment
from levelcode.core.errors import ContextTooLong, TurnAborted
from levelcode.core.messages import AssistantTurn, ToolResult, ToolUse, Usage
from levelcode.core.outcome import failure
from levelcode.core.tool_offers import offer_found
from levelcode.policy.prices import Price
from levelcode.providers.base import Provider

DEFAULT_MAX_STEPS = 60
ABORTED_WHILE_RUNNING = failure("the user aborted this tool call while it was running.")


class Agent:
    def __init__(
        self,
        provider: Provider,
        toolbox: Toolbox,
        *,
        system: str,
        sink: EventSink,
        max_steps: int = DEFAULT_MAX_STEPS,
        prices: Mapping[str, Price] | None = None,
    ) -> None:
        self.provider = provider
        self.toolbox = toolbox
        self.system = system
        self.sink = sink
        self.max_steps = max_steps
        self.transcript = Transcript()
        self.last_usage: Usage | None = None
        self.spend = SpendMeter(prices)  # the user's prices (settings) before the known ones
        self.compactor = Compactor(provider)
        # called where the transcript is paired and complete (must not raise): the session file
        self.checkpoint: Callable[[], None] = lambda: None

    @property
    def turn_usage(self) -> Usage:
        """This turn's requests, summed (compaction's included)."""
        return self.spend.turn.usage

    async def run_turn(self, prompt: str, attachments: Sequence[Attachment] = ()) -> str:
        """The model's final text for this prompt (and what the user attached to it). Raises
        TurnAborted (Ctrl-C) or ProviderError; either way the turn is closed with a note first, so
        the next prompt is a turn of its own."""
        changes = await self.toolbox.changes()  # resources in use that changed: the model is told
        if changes:
            prompt = with_resource_changes(prompt, changes)
            attachments = (*attachments, *refreshed_copies(changes))
            self.sink.emit(Notice(resource_changes_notice(changes)))
        self.transcript.add_prompt(prompt, attachments)
        self.spend.begin_turn()
        try:
            return await self._steps()
        except (TurnAborted, asyncio.CancelledError, KeyboardInterrupt):
            self.transcript.end_unanswered(INTERRUPTED_NOTE)
            raise
        except Exception:
            self.transcript.end_unanswered(FAILED_NOTE)
            raise
        finally:
            self.spend.end_turn()
            self.checkpoint()

    async def _steps(self) -> str:
        for _step in range(self.max_steps):
            try:
                turn = await self._complete_within_window()
            except asyncio.CancelledError:
                raise TurnAborted("aborted while the model was answering") from None
            self.last_usage = turn.usage or self.last_usage
            self.spend.record(self.provider.settings.model, turn.usage)
            self.transcript.add_assistant(turn.message)
            uses = turn.message.tool_uses
            if not uses:
                self._finished(turn.message.text, turn.stop_reason)
                return turn.message.text
            await self._run_tools(uses)
        note = f"stopped after {self.max_steps} model steps without a final answer"
        self.sink.emit(Notice(note))
        self._finished("", "max_steps")
        return ""

    def _finished(self, text: str, stop_reason: str) -> None:
        spend = SpendReport(self.provider.settings.model, self.spend.turn, self.spend.session)
        self.sink.emit(TurnFinished(text, stop_reason, self.turn_usage, spend))

    async def _complete_within_window(self) -> AssistantTurn:
        """One model request; the older turns compacted first when it would not fit the window,
        and once more (then the request again, once) when the API says it did not."""
        await self.toolbox.prepare()
        tools = offer_found(self.toolbox.specs(), self.transcript.messages)
        if self.compactor.needs_room(self.system, tools, self.transcript.messages):
            await self.compact("the context was nearly full")
        try:
            return await self._complete()
        except ContextTooLong as exc:
            self.compactor.named_window = exc.window or self.compactor.named_window
            keep: Keep = "fit" if exc.window else "turn"  # no number to go by: keep the least
            if not await self.compact("the API said the prompt is too long", keep=keep):
                raise
        return await self._complete()

    async def _complete(self) -> AssistantTurn:
        self.sink.emit(AwaitingModel("answer"))
        return await self.provider.complete(
            system=self.system,
            messages=list(self.transcript.messages),
            tools=offer_found(self.toolbox.specs(), self.transcript.messages),
            on_text=lambda text: self.sink.emit(TextDelta(text)),
        )

    async def compact(self, why: str, *, keep: Keep = "fit") -> bool:
        """Compact the older turns now (`/compact`: keep the last turn); False: nothing to compact."""
        self.sink.emit(AwaitingModel("compaction"))
        done = await self.compactor.compact(self.transcript, keep=keep)
        if done is not None:
            self.spend.record(self.provider.settings.model, done.usage)
            self.sink.emit(Notice(done.describe(why)))
            self.checkpoint()
        return done is not None

    async def _run_tools(self, uses: tuple[ToolUse, ...]) -> None:
        results: list[ToolResult] = []
        try:
            for use in uses:
                call = self.toolbox.resolve(use)
                self.sink.emit(ToolCallEvent(use.id, use.name, call.origin, call.shown_input))
                result = await self.toolbox.run(call)
                results.append(result)
                media = tuple(item.info for item in result.outcome.media)
                saved = result.outcome.saved
                self.sink.emit(
                    ToolResultEvent(use.id, use.name, result.is_error, result.content, media, saved)
                )
        except asyncio.CancelledError:
            running = uses[len(results)]
            results.append(ToolResult(running.id, ABORTED_WHILE_RUNNING))
            self.transcript.answer(uses, results)
            raise TurnAborted("aborted while a tool was running") from None
        except BaseException:
            self.transcript.answer(uses, results)
            raise
        self.transcript.answer(uses, results)
        self.checkpoint()
