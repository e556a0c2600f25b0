"""The command line: options, commands, exit codes. The only place that talks to click."""
