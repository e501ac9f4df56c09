x  
