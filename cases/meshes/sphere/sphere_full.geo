quarter = 0;
Include "sphere.geo";
