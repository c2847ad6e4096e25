"""Test servers and fakes for omnieval's own tests, its benchmarks and users' CI.

``omnieval.testing.fake_openai`` is an OpenAI-compatible server with deterministic fault injection
(``python -m omnieval.testing.fake_openai --help``). Nothing here is imported by the engine.
"""
