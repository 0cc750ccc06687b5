"""What every review panel needs and no review kind owns.

Nothing in this package knows about a particular kind (DS analyses, designs, code, impact
results); kinds import the core, never each other.
"""
