// Placeholder so the target builds before its first source lands.
