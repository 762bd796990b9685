"""vtgate subcommands, one module each; vtgate.cli.main imports them so they register on vtgate.cli.app.app."""
