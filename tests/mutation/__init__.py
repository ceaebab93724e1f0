"""Mutation testing of the graders: cosmic-ray mutates each reference solution, attnprep grades every mutant."""
