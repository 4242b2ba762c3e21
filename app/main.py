"""Regret Lab, the Streamlit app: ``streamlit run app/main.py``.

Pages (``st.navigation``): Set up, Solve (the default: it opens on a preset with Solve one
click away), Explore, Compare (algorithm races), Export & save. Each page module has a
``render()``; every session-state key lives in :mod:`app.state`.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).absolute().parent.parent
if str(ROOT) not in sys.path:  # `streamlit run app/main.py` puts app/ on the path, not the root
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app import nav, state  # noqa: E402
from app.screens.setup import ensure_form  # noqa: E402


def main() -> None:
    st.set_page_config(page_title="Regret Lab", page_icon=":material/casino:", layout="wide")
    state.keep_widgets()
    ensure_form()
    pg = st.navigation(list(nav.pages().values()))
    pg.run()


main()
