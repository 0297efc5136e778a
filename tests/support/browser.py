"""The user's browser in the sign-in tests: opens the authorization URL, and follows the server's
redirect to LevelCode's localhost callback, as a browser does once the user has said yes; and
`levelcode mcp login --no-browser` driven by a browser on another machine."""

from __future__ import annotations

import subprocess
from pathlib import Path

import httpx2

from levelcode.mcp.protocol.sign_in import Deliver, SignInPrompt
from tests.support.cli import LEVELCODE, cli_env


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


def login_elsewhere(home: Path, server: str, *, paste: bool, **env: str) -> tuple[int, str]:
    """`levelcode mcp login SERVER --no-browser`, the test being the browser on another machine:
    it signs in at the printed address, or (`paste`) pastes back the address it ended on."""
    process = subprocess.Popen(
        [str(LEVELCODE), "mcp", "login", server, "--no-browser"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=cli_env(home, **env),
    )
    assert process.stdout is not None
    assert process.stdin is not None
    seen: list[str] = []
    for line in process.stdout:
        seen.append(line)
        if line.startswith("  http://") and "/authorize?" in line:
            url = line.strip()
            if paste:  # the browser elsewhere ends on a page that does not load: paste its address
                with httpx2.Client(follow_redirects=False) as browser:
                    process.stdin.write(browser.get(url).headers["location"] + "\n")
                    process.stdin.flush()
            else:
                assert follow_sign_in(url) == 200
            break
    rest, _ = process.communicate(timeout=60)
    return process.returncode, "".join(seen) + rest
