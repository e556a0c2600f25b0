from transform.cli.main import main

raise SystemExit(main())
