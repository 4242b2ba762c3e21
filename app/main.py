"""Regret Lab, the Streamlit app: ``streamlit run app/main.py``.

Pages (``st.navigation``): Set up, Solve (the default: it opens on a preset with Solve one
click away), Explore, Practice (a trainer on the solve), Compare (algorithm races), Export &
save. Each page module has a
``render()``; every session-state key lives in :mod:`app.state`. Before a page draws: a
reloaded page takes its solve back (:func:`app.runtime.reattach`), the Set up form is
filled, and the Solve settings follow the game (:func:`app.settings.follow_game`).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).absolute().parent.parent
if str(ROOT) not in sys.path:  # `streamlit run app/main.py` puts app/ on the path, not the root
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from app import files, kernels, nav, pages, runtime, state  # noqa: E402
from app import settings as cfgmod  # noqa: E402
from app import spec as S  # noqa: E402
from app.errors import shown  # noqa: E402
from app.features import multi_reload  # noqa: E402
from app.request import ensure_form  # noqa: E402

# Tighter than Streamlit's defaults, so the Solve page's curve and grid are in view at
# 1440×900 without scrolling; smaller metric values fit seven in a row. Elements being redrawn
# stay as they are (Streamlit fades them while a run is on: the live view flickered), and the
# "Running… Stop" status in the header is hidden: it animated on every live redraw, and its
# Stop is not the solve's (Stop on each page is).
CSS = """<style>
[data-testid="stMainBlockContainer"] {padding-top: 3.2rem; padding-bottom: 2rem;}
[data-testid="stMain"] [data-testid="stVerticalBlock"] {gap: 0.55rem;}
h1 {font-size: 2rem !important; padding: 0 0 0.2rem 0 !important;}
[data-testid="stMetricValue"] {font-size: 1.4rem;}
[data-stale="true"] {opacity: 1 !important; transition: none !important;}
[data-testid="stStatusWidget"] {display: none !important;}
.st-key-race_results {scroll-margin-top: 4.5rem;}
</style>"""


def main() -> None:
    st.set_page_config(page_title="Regret Lab", page_icon=":material/casino:", layout="wide")
    st.html(CSS)
    runtime.reattach()
    multi_reload.reattach()  # (a three-player solve: its own token, ?solve3=)
    ensure_form()
    source = str(state.get(state.SOURCE))
    job = state.job()
    busy = job is not None and not job.progress.finished
    cfgmod.follow_game(source, S.is_holdem_spot(source, state.get(state.UPLOADED)), busy)
    if files.exposed():
        st.sidebar.warning(
            "This server answers other machines, with no sign-in: anyone who reaches it can "
            "use every page, start solves and batches, and read the batch folder's "
            "databases. docs/app.md, 'Serving it to others', says how to put a sign-in in "
            "front.",
            icon=":material/public:",
        )
    running = len(runtime.registry().running())
    if running:
        st.sidebar.caption(
            f"{running} solve{'s' if running > 1 else ''} running on this server",
            help="every tab's solves and races share this machine's cores",
        )
    if not kernels.warmup().ready():
        with st.sidebar:
            st.fragment(_kernel_status, run_every=2.0)()
    nav.use(pages.build())
    pg = st.navigation(list(nav.pages().values()))
    try:
        pg.run()
    except Exception as exc:  # unexpected: the message for the user, the stack for the log
        st.error(f"Something went wrong: {shown(exc)}", icon=":material/error:")
        raise  # Streamlit logs the traceback on the server (.streamlit/config.toml)


def _kernel_status() -> None:
    """Where the background warm-up is (redrawn every 2 s until it is done)."""
    w = kernels.warmup()
    if w.ready():
        st.rerun()  # the whole page, once: the status goes and its timer with it
    st.info(
        w.summary()
        + (
            ". First run after an install only (docs/app.md, 'First start'); solves "
            "start as soon as their own kernels are ready."
            if w.compiling()
            else ""
        ),
        icon=":material/hourglass_top:",
    )


main()
