"""The formula reader's token vocabulary and input height, shared by the generator, the trainer and the export
(which writes the vocabulary into the bundle's formula.json for src/vision/formula.ts)."""
import re

HEIGHT = 96  # input rows: a 10 pt body line at about 24 px, so four lines of a display formula fit
PAD, BOS, EOS, TEXT = "<pad>", "<s>", "</s>", "<text>"

_COMMANDS = r"""
\alpha \beta \gamma \delta \epsilon \varepsilon \zeta \eta \theta \vartheta \iota \kappa \lambda \mu \nu \xi \pi \rho
\sigma \tau \upsilon \phi \varphi \chi \psi \omega \Gamma \Delta \Theta \Lambda \Xi \Pi \Sigma \Phi \Psi \Omega
\sum \prod \int \oint \iint \iiint \bigcup \bigcap \coprod
\sin \cos \tan \log \ln \exp \det \dim \ker \max \min \sup \inf \lim \arg \deg \gcd \Pr \sinh \cosh
\leq \geq \neq \approx \equiv \sim \simeq \in \subset \subseteq \to \mapsto \Rightarrow \propto
\cdot \times \pm \cup \cap \circ \otimes \oplus
\hat \bar \tilde \vec \dot \ddot \overline \widehat \check
\mathbf \mathrm \mathcal \mathbb \mathit \mathsf
\infty \partial \nabla \ell \hbar \emptyset \forall \exists \aleph
\ldots \cdots \dots \frac \sqrt \langle \rangle \{ \} \|
""".split()
_CHARS = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") + list("+-=<>()[]|,.;:/'!*{}_^")

VOCAB = [PAD, BOS, EOS, TEXT] + _CHARS + _COMMANDS
INDEX = {t: i for i, t in enumerate(VOCAB)}
_DROP = {r"\left", r"\right", r"\,", r"\;", r"\:", r"\!", r"\ ", r"\quad", r"\qquad", r"\displaystyle"}
_TOKEN = re.compile(r"\\[a-zA-Z]+|\\.|\S")


def tokenize(src):
    """LaTeX source to vocabulary tokens (spacing and \\left/\\right dropped), or None when a token is unknown."""
    out = []
    for t in _TOKEN.findall(src):
        if t in _DROP:
            continue
        if t not in INDEX:
            return None
        out.append(t)
    return out


def detokenize(tokens):
    """Tokens back to LaTeX: a space only where a control word meets a letter."""
    s = ""
    for t in tokens:
        if s and re.search(r"\\[a-zA-Z]+$", s) and re.match(r"[a-zA-Z]", t):
            s += " "
        s += t
    return s
