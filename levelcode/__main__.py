"""`python -m levelcode` runs the same entry point as the `levelcode` console script."""

from levelcode.cli.main import main

raise SystemExit(main())
