"""The report layer every tablestorm command shares: page pieces, plots, run metadata."""
