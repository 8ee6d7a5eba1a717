"""Writers and readers of model files and other tools' formats: the JSON envelope with
atomic writes, pgmpy and BIF. They only read a model's public attributes.
"""
