// Placeholder until the first service lands.
