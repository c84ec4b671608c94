"""The report layer every tablestorm command shares: page pieces, plots and their palette, run
metadata, and whether a live view may redraw on its terminal."""
