"""The data-science analysis review (seeds 000 and 001): preparation, DS scoring and synthesis, rendering."""
