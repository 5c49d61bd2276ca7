"""Model endpoints and keys from the environment, as the original tools read them.

A key travels to assay only inside a run request's `provider` (the server keeps it encrypted for the
run's life) and is never printed. Every vendor URL here can be overridden from the environment, so a
test (or a proxy) can point a facade anywhere before it calls anything.
"""

from __future__ import annotations

import os
from typing import Dict, Mapping, Optional

OPENAI_BASE_URL = "https://api.openai.com/v1"
OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"


class ConfigError(ValueError):
    """A facade's config (or arguments) that cannot make a request: an unknown key, a missing model key.

    Found before anything is sent; the server's own refusals come as AssayError, naming the field."""


def openrouter_base_url(env: Mapping[str, str]) -> str:
    # The harness hard-codes OpenRouter's URL; we let OPENROUTER_BASE_URL override it too.
    return env.get("OPENROUTER_BASE_URL") or OPENROUTER_BASE_URL


def provider_from_env(
    *,
    base_url: Optional[str] = None,
    api_key_env: Optional[str] = None,
    env: Optional[Mapping[str, str]] = None,
) -> Dict[str, str]:
    """The run's `provider` as chain_determinism_harness resolves it (Heretix reads the same variables).

    The endpoint: `base_url`; else OpenRouter's when OPENROUTER_API_KEY is set and OPENAI_API_KEY is
    not; else OPENAI_BASE_URL or OpenAI's. The key: the variable `api_key_env` names (which must be
    set); else OPENROUTER_API_KEY for an OpenRouter URL, OPENAI_API_KEY (then OPENROUTER_API_KEY) for
    the rest. Without a key the provider has only `base_url` (a local server may take none): a caller
    refuses that unless the endpoint was chosen explicitly, or the server would call the vendor keyless.
    """
    env = os.environ if env is None else env
    openrouter = False
    if base_url is None:
        if env.get("OPENROUTER_API_KEY") and not env.get("OPENAI_API_KEY"):
            base_url, openrouter = openrouter_base_url(env), True
        else:
            base_url = env.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
    if api_key_env:
        key = env.get(api_key_env)
        if not key:
            raise ConfigError(f"{api_key_env} is not set (named by api_key_env)")
        return {"base_url": base_url, "api_key": key}
    if openrouter or "openrouter" in base_url:
        key = env.get("OPENROUTER_API_KEY")
    else:
        key = env.get("OPENAI_API_KEY") or env.get("OPENROUTER_API_KEY")
    return {"base_url": base_url, "api_key": key} if key else {"base_url": base_url}
