from gpuforge.cli import main

raise SystemExit(main())
