"""One mapper per wire format: ``openai_chat``, ``openai_responses``, ``anthropic``, ``gemini``, ``ollama``.

Look them up by registry name with :func:`interlingua.mapping.get_mapper`.
"""
