def choose(request)
    return request["legalActions"][0]
