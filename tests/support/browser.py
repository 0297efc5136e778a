"""The user's browser in the sign-in tests: opens the authorization URL, and follows the server's
redirect to LevelCode's localhost callback, as a browser does once the user has said yes."""

from __future__ import annotations

import httpx2

from levelcode.mcp.protocol.sign_in import Deliver, SignInPrompt


def follow_sign_in(url: str) -> int:
    """Open `url` and land where the authorization server redirects; the final status."""
    with httpx2.Client(follow_redirects=False, timeout=10) as browser:
        answer = browser.get(url)
        location = answer.headers.get("location")
        if location is None:
            return answer.status_code
        return browser.get(location).status_code


class Browser:
    def __init__(self) -> None:
        self.prompts: list[SignInPrompt] = []

    async def open(self, prompt: SignInPrompt, deliver: Deliver) -> None:
        self.prompts.append(prompt)
        async with httpx2.AsyncClient(follow_redirects=False, timeout=10) as browser:
            answer = await browser.get(prompt.url)
            location = answer.headers.get("location")
            assert location is not None, f"the authorization server answered {answer.status_code}"
            await browser.get(location)
