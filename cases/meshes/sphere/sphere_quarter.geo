quarter = 1;
Include "sphere.geo";
