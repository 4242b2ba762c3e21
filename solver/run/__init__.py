"""Running things: background solve jobs, their lifecycle, the time calibration and
algorithm races."""
