from transform.cli.main import entry

entry()
