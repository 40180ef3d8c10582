"""Writes the real documents of the knowledge tests into OUTDIR:
facts.pdf (three pages, a fact only on page 2), locked.pdf (encrypted),
guide.docx (Title, Heading 1 and Heading 2 styles, the fact under them).
Usage: python knowledge-files.py OUTDIR"""

import sys
from pathlib import Path

from docx import Document
from fpdf import FPDF

out = Path(sys.argv[1])
out.mkdir(parents=True, exist_ok=True)


def pdf(path, pages, encrypt=False):
    doc = FPDF()
    if encrypt:
        doc.set_encryption(owner_password="owner", user_password="user")
    doc.set_font("Helvetica", size=12)
    for text in pages:
        doc.add_page()
        doc.multi_cell(0, 8, text)
    doc.output(str(path))


# Each page longer than a chunk, so chunks fall on every page.
filler = "The harbour keeps its records in a ledger that nobody reads twice. " * 14
pdf(
    out / "facts.pdf",
    [
        "Page one is about tides and the harbour master's schedule. " + filler,
        filler + "The lighthouse keeper's cat is named Marmalade and sleeps on the lamp room stairs. " + filler,
        "Page three lists the opening hours of the museum shop. " + filler,
    ],
)
pdf(out / "locked.pdf", ["A secret page."], encrypt=True)

guide = Document()
guide.add_heading("Field Guide", level=0)
guide.add_heading("Installation", level=1)
for n in range(12):
    guide.add_paragraph(f"Step {n}: unpack the kit on a dry table and check every part against the list. " * 2)
guide.add_heading("Requirements", level=2)
guide.add_paragraph("The gasket must be torqued to exactly 17 newton metres.")
guide.save(out / "guide.docx")
print("ok")
