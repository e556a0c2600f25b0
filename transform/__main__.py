from transform.cli import main

raise SystemExit(main())
