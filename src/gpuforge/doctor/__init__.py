"""The doctor: probe an interpreter or read a log and name catalogued failures with their fixes."""
