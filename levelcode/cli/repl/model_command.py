"""`/model`: which models this session's provider has (the price table's and the user's priced
ones; on a custom base URL, what that server's `GET …/models` lists), and switching to one
mid-session (cli/start/chat_parts.py `switch_model`: the window, the price and the session file follow;
the next request uses it).

A name is taken as the provider serves it, known or not (a local server's own names, a newer
release), except one of the other provider's families on the provider's own API, which could never
answer (`gpt-5.5` on api.anthropic.com): that asks for the other `--provider` at start instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from rich.console import Console
from rich.text import Text

from levelcode.core.errors import ProviderError
from levelcode.policy.prices import Price
from levelcode.providers.base import ListsModels, ProviderSettings
from levelcode.providers.context_windows import known_context_window
from levelcode.providers.keys import is_custom_endpoint
from levelcode.providers.model_catalog import family_provider, known_models, model_facts
from levelcode.providers.prices import find_price
from levelcode.ui.model_view import MODEL_USAGE, render_models, render_served, switched_lines, unlisted
from levelcode.ui.visible import visible

if TYPE_CHECKING:
    from levelcode.cli.start.chat_parts import ChatSession

MAX_MODEL_NAME = 200


def refusal(name: str, settings: ProviderSettings) -> str | None:
    """Why `name` cannot be switched to in this session, or None."""
    if not name.isprintable() or len(name) > MAX_MODEL_NAME:
        return f"not a model name: {visible(name[:MAX_MODEL_NAME])}"
    family = family_provider(name)
    if settings.base_url is None and family is not None and family != settings.provider:
        return (
            f"{visible(name)} is a model of {family}, and this session talks to {settings.provider}: "
            f"start LevelCode with --provider {family} --model {visible(name)} to use it"
        )
    return None


def model_listing(
    settings: ProviderSettings, configured_window: int | None, prices: Mapping[str, Price]
) -> str:
    names = known_models(settings.provider, prices)
    if settings.model not in names:
        names.insert(0, settings.model)
    facts = [model_facts(name, settings.provider, configured_window, prices) for name in names]
    return render_models(
        settings.provider, settings.model, [(f.name, f.context_window, f.price) for f in facts]
    )


def served_listing(
    settings: ProviderSettings,
    served: list[str],
    configured_window: int | None,
    prices: Mapping[str, Price],
) -> str:
    """What a custom base URL serves, sorted, each with the window and price LevelCode knows of
    it (a local model's are unknown until the user's settings say)."""
    listed = [
        (n, known_context_window(n, configured_window), find_price(n, prices)) for n in sorted(set(served))
    ]
    return render_served(settings.base_url or "", settings.model, listed)


async def listing(session: ChatSession) -> str:
    """`/model`'s list: the provider's known models, or what a custom base URL serves."""
    settings, window = session.provider.settings, session.settings.provider.context_window
    prices = session.agent.spend.user_prices
    provider = session.provider
    if not is_custom_endpoint(settings.provider, settings.base_url) or not isinstance(provider, ListsModels):
        return model_listing(settings, window, prices)
    endpoint = settings.base_url or ""
    try:
        served = await provider.served_models()
    except ProviderError as exc:
        return unlisted(endpoint, settings.model, str(exc))
    if served is None:
        return unlisted(endpoint, settings.model, None)
    return served_listing(settings, served, window, prices)


async def model_command(console: Console, session: ChatSession, words: list[str]) -> None:
    settings = session.provider.settings
    prices = session.agent.spend.user_prices
    if not words:
        console.out(await listing(session), highlight=False)
        return
    if len(words) > 1:
        console.print(Text(MODEL_USAGE, style="yellow"))
        return
    name = words[0]
    why_not = refusal(name, settings)
    if why_not is not None:
        console.print(Text(why_not, style="yellow"))
        return
    if name == settings.model:
        console.print(Text(f"Already using {visible(name)}.", style="dim"))
        return
    switched = session.switch_model(name)
    facts = model_facts(name, switched.provider, session.settings.provider.context_window, prices)
    for line in switched_lines(switched.provider, name, facts.context_window, facts.price, facts.known):
        console.print(Text(line, style="green" if line.startswith("Model:") else "dim"))
