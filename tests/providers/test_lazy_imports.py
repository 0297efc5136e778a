"""Start-up stays fast: choosing a provider imports no SDK; only making one imports the one it needs."""

from __future__ import annotations

import subprocess
import sys

SDKS = ("anthropic", "openai", "httpx2")


def _sdks_loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport sys\nprint(','.join(m for m in {SDKS!r} if m in sys.modules))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    return [name for name in done.stdout.strip().split(",") if name]


def test_the_pure_provider_modules_import_no_sdk() -> None:
    code = (
        "import levelcode.providers.base, levelcode.providers.factory, levelcode.providers.translate, "
        "levelcode.providers.failures, levelcode.providers.keys, levelcode.providers.loop_client\n"
        "from levelcode.providers.factory import resolve_provider_settings\n"
        "from levelcode.policy.settings_keys import ProviderPreferences\n"
        "resolve_provider_settings(env={}, preferences=ProviderPreferences())"
    )
    assert _sdks_loaded_after(code) == []


def test_making_a_provider_imports_only_its_sdk() -> None:
    code = (
        "from levelcode.providers.base import ProviderSettings\n"
        "from levelcode.providers.factory import make_provider\n"
        "make_provider(ProviderSettings('openai', 'm', 'http://127.0.0.1:9/v1', 'k'))"
    )
    loaded = _sdks_loaded_after(code)
    assert "anthropic" not in loaded
    assert "openai" in loaded
