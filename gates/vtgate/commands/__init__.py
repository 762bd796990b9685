"""vtgate subcommands, one module each; vtgate.cli imports them so they register on vtgate.app.app."""
