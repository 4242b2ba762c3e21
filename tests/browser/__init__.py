"""Browser tests: Playwright driving Debian chromium against the real server."""
