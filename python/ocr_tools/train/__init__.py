"""The line-unit default model (models/default): data, model, training, export and evaluation."""
