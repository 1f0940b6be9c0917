"""What every stage of the grant builds on: who may see which file, the application's states, the
quote."""
