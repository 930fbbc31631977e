"""Battle Sheep: split-and-slide sheep stacks on a pasture built from hex tiles."""
