// The commands as functions.
