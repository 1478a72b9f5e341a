"""State stores shared by processes (one module per engine; each imports its client only inside)."""
