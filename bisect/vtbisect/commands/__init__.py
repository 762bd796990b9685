"""vtbisect commands, one module each; vtbisect.cli imports them to register them."""
