"""The annual accountability report and the open data, from a KpiReport (outcomes/tables.py):
the figures in words and cells (cells.py, summary.py), the PDF (pdf.py), the CSV files
(csvfiles.py, opendata.py) and the plots (plots.py). One KpiReport gives the page, the PDF and
the CSV files, so they cannot disagree; a suppressed figure's value is never read here."""
