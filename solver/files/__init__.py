"""Files: presets, saved solves (and reading them safely), 13×13 chart exports."""
