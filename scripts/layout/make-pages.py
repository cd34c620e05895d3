# Writes two LaTeX test pages for reading order from licence texts Debian ships (/usr/share/common-licenses):
# mag3.tex, a magazine page (running header and footer, a headline over three columns of \small text with a
# 0.16 in gutter), and paper2.tex, a two-column paper (title, authors, a full-width abstract, sections).
# Usage: python3 scripts/layout/make-pages.py OUTDIR && cd OUTDIR && pdflatex mag3.tex && pdflatex paper2.tex
# (Debian: apt-get install texlive-latex-base texlive-latex-recommended); then scripts/layout/order-check.mjs.
import os, re, sys

out = sys.argv[1] if len(sys.argv) > 1 else "."


def paras(path):
    t = open(path).read()
    ps = [re.sub(r"\s+", " ", p).strip() for p in re.split(r"\n\s*\n", t)]
    return [p for p in ps if len(p) > 200 and not p.isupper()]


def esc(s):
    for a, b in [("\\", "\\textbackslash{}"), ("&", "\\&"), ("%", "\\%"), ("$", "\\$"), ("#", "\\#"), ("_", "\\_"),
                 ("{", "\\{"), ("}", "\\}"), ("~", "\\~{}"), ("^", "\\^{}"), ('"', "''")]:
        s = s.replace(a, b)
    return s


gpl = paras("/usr/share/common-licenses/GPL-3")
mpl = paras("/usr/share/common-licenses/MPL-2.0")
apache = paras("/usr/share/common-licenses/Apache-2.0")

body, heads, k = [], ["Who owns the code?", "A licence for users", "Copyleft in practice", "What changed in version three", "The patent clause"], 0
for i, p in enumerate(gpl[2:20]):
    if i % 4 == 0:
        body.append("\\subsection*{%s}" % heads[k % len(heads)])
        k += 1
    body.append(esc(p) + "\n")
mag = r"""\documentclass[10pt]{article}
\usepackage[letterpaper,margin=0.6in,top=0.8in,bottom=0.8in]{geometry}
\usepackage{multicol}
\usepackage{fancyhdr}
\setlength{\columnsep}{0.16in}
\pagestyle{fancy}\fancyhf{}
\lhead{\small\itshape SOFTWARE QUARTERLY}\rhead{\small\itshape Spring 2019}
\cfoot{\small 42}
\renewcommand{\headrulewidth}{0.4pt}
\begin{document}
\noindent{\Huge\bfseries Free software and the fine print}\\[4pt]
{\large\itshape How a licence written in 1989 still decides who may change the programs we run}\\[2pt]
{\small By the editors}
\vspace{6pt}
\begin{multicols}{3}
\small
""" + "\n".join(body) + r"""
\end{multicols}
\end{document}
"""
open(os.path.join(out, "mag3.tex"), "w").write(mag)

abstract = esc(mpl[0] + " " + mpl[1][:400])
pb, secs = [], ["Introduction", "Definitions", "Scope of the grant", "Distribution", "Related work", "Conclusion"]
for i, p in enumerate(apache[1:16] + gpl[20:30]):
    if i % 4 == 0:
        pb.append("\\section{%s}" % secs[(i // 4) % len(secs)])
    pb.append(esc(p) + "\n")
paper = r"""\documentclass[10pt,twocolumn]{article}
\usepackage[a4paper,margin=0.75in]{geometry}
\begin{document}
\twocolumn[{
\begin{center}
{\LARGE\bfseries On the Terms of Open Source Licences: A Reading}\\[10pt]
{\large A. Author \quad B. Writer}\\[4pt]
{\small Department of Software, Example University}\\[12pt]
\end{center}
\begin{quote}
\small\textbf{Abstract.} """ + abstract + r"""
\end{quote}
\vspace{10pt}
}]
""" + "\n".join(pb) + r"""
\end{document}
"""
open(os.path.join(out, "paper2.tex"), "w").write(paper)
