"""Where the tools find the repository and the data folder.

The repository's own files (models/default, training/default, fixtures) are found from this file. Data that lives
outside the repository (synthetic pages, the corpus, Debian packages) has no built-in location: each such option
is required, or defaults to a folder under $OCR_DATA when that variable is set."""
import os

REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DATA_ENV = "OCR_DATA"


def repo_path(*parts):
    """A path inside the repository checkout."""
    return os.path.join(REPO_ROOT, *parts)


def data_default(*parts):
    """$OCR_DATA/parts..., or None when OCR_DATA is unset or empty."""
    base = os.environ.get(DATA_ENV)
    return os.path.join(base, *parts) if base else None


def add_data_option(parser, flag, *parts, help="", **kwargs):
    """An option whose default is $OCR_DATA/parts... (required when OCR_DATA is unset; see require_data)."""
    where = os.path.join("$" + DATA_ENV, *parts)
    text = f"{help} (default {where}; required when {DATA_ENV} is unset)".strip()
    parser.add_argument(flag, default=data_default(*parts), help=text, **kwargs)


def require_data(parser, value, flag, *parts, exists=True):
    """Stops with a message naming the option when it has no value, or (exists=True) when the path is missing."""
    if not value:
        where = os.path.join("$" + DATA_ENV, *parts)
        parser.error(
            f"{flag} is required: pass {flag} PATH, or set {DATA_ENV} to the data folder ({flag} is then {where})"
        )
    if exists and not os.path.exists(value):
        parser.error(f"{flag} {value}: no such file or folder")
    return value
